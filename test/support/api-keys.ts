export { apiKeyItem } from '../../lib/testing';
