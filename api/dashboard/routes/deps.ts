/** What every dashboard route needs: the stores, the session store in use, the sign-in throttle and device cookies. */
import type { Config } from '../../config.ts';
import type { SessionStore } from '../../store/people-types.ts';
import type { Store } from '../../store/types.ts';
import type { DeviceCookies } from '../device-cookie.ts';
import type { Mailer } from '../mail.ts';
import type { HttpClient } from '../../sources/http.ts';
import type { SourcesService } from '../../sources/service.ts';
import type { SignInThrottle } from '../sign-in-throttle.ts';
import type { WebhooksService } from '../../webhooks/service.ts';
import type { ProductsService } from '../../products/service.ts';
import type { RepliesService } from '../../replies/service.ts';
import type { CollectService } from '../../collect/service.ts';
import type { InvitationsService } from '../../invitations/service.ts';

export interface DashboardDeps {
  config: Config;
  store: Store;
  sessions: SessionStore;
  throttle: SignInThrottle;
  /** Signs and checks the device cookie that exempts a known browser from the per-email sign-in limits. */
  devices: DeviceCookies;
  /** Review sources: absent where the app runs without them (some tests); the routes then answer 503. */
  sources?: SourcesService;
  /** Sends invitations when SMTP_URL is set; absent: the inviter is shown the link. */
  mailer?: Mailer;
  platformHttp?: HttpClient;
  /** Webhook endpoints: absent where the app runs without them (some tests); the routes then answer 503. */
  webhooks?: WebhooksService;
  /** The product catalog: absent where the app runs without it (some tests); the routes then answer 503. */
  products?: ProductsService;
  /** Replies to reviews (CONTRACT §15): absent where the app runs without them (some tests); the routes then answer 503. */
  replies?: RepliesService;
  /** The review page (CONTRACT §13): absent where the app runs without it; the routes then answer 503. */
  collect?: CollectService;
  /** Review invitations (CONTRACT §14, the Collect page): absent where the app runs without them; the routes then answer 503. */
  invitations?: InvitationsService;
}
