export { apiKeyItem } from '../../lib/testing/api-key-item';
