/** The demo organization's name: how the seed and the demo page find it. */
export const DEMO_ORG_NAME = 'Acme Coffee Roasters';
