declare const __MERMA_SDK_VERSION__: string;

/**
 * The package's version, sent as `X-Merma-SDK: js/<version>`. Injected at build time from
 * package.json (which changesets sets), so it is written in one place.
 */
export const VERSION: string = typeof __MERMA_SDK_VERSION__ === 'string' ? __MERMA_SDK_VERSION__ : '0.0.0-dev';
