/** Every connector, by platform (CAPTERRA has no public reviews API: file import only). */
import type { SourcePlatform } from '../store/types.ts';
import type { Connector } from './connector.ts';
import { facebook } from './facebook.ts';
import { g2 } from './g2.ts';
import { google } from './google.ts';
import { trustpilot } from './trustpilot.ts';
import { yelp } from './yelp.ts';

export const CONNECTORS: Record<SourcePlatform, Connector<any, any>> = {
  GOOGLE: google,
  TRUSTPILOT: trustpilot,
  YELP: yelp,
  FACEBOOK: facebook,
  G2: g2,
};
