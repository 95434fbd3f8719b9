/** The request encodings, as the testing kit builds them (lib/testing/request-bodies.ts). */
export { encodeBody, encodings, type Encoding } from '../../lib/testing/request-bodies';
