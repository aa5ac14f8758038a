/**
 * Entry of the hashed widget bundle: it only hands `mount` to the loader
 * through the one namespace, and defines no other global.
 */
import type { Namespace } from './loader.ts';
import { mount } from './mount.tsx';
import { NAMESPACE } from './protocol.ts';

const w = window as unknown as Record<string, Partial<Namespace> | undefined>;
(w[NAMESPACE] ??= {}).mount = mount;
