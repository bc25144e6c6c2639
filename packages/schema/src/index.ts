export * from './catalog.js';
export * from './common.js';
export * from './constants.js';
export * from './envelope.js';
export * from './events.js';
export * from './records.js';
