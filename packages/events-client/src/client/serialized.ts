/**
 * An event already serialized as JSON (a line of an NDJSON file): sent as it is, without a parse and a
 * second stringify, unless hashing or local validation needs the object (C56: each event is serialized once).
 * The caller vouches that `json` is one JSON object.
 */
export class SerializedEvent {
  constructor(readonly json: string) {}
}
