/** What every dashboard route needs: the stores, the session store in use, the sign-in throttle. */
import type { Config } from '../../config.ts';
import type { SessionStore } from '../../store/people-types.ts';
import type { Store } from '../../store/types.ts';
import type { SignInThrottle } from '../sign-in-throttle.ts';

export interface DashboardDeps {
  config: Config;
  store: Store;
  sessions: SessionStore;
  throttle: SignInThrottle;
}
