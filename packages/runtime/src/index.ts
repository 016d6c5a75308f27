export { BundleError, canonicalJson, fingerprintOf, loadBundle, type LoadedBundle } from './bundle/load';
export type { BundleDefinition } from './bundle/schema';
export { DEFAULT_BUNDLE_PATH, Runtime, type IngressState, type RuntimeOptions } from './runtime';
