export * from './constants.js';
export * from './common.js';
export * from './envelope.js';
export * from './records.js';
export * from './catalog.js';
export * from './events.js';
