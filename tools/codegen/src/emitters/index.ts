import type { Emitter } from '../emit/emitter.js';
import { eventsClientEmitter } from './events-client/index.js';
import { eventsDocsEmitter } from './events-docs/index.js';
import { eventsMockServerEmitter } from './events-mock-server/index.js';
import { eventsTypesEmitter } from './events-types/index.js';
import { eventsValidatorsEmitter } from './events-validators/index.js';

/** One emitter per target package; adding a target is adding a file and a line here. */
export const emitters: Emitter[] = [
  eventsTypesEmitter,
  eventsMockServerEmitter,
  eventsDocsEmitter,
  eventsValidatorsEmitter,
  eventsClientEmitter,
];
