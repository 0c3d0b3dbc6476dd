import type { DirectoryData } from './directory-data.js';

/** The directory part of a store (C8, C10): accounts, apps, users and tokens, and custom event types. */
export interface DirectoryStore {
  /** Replaces accounts, apps, users and tokens with the config's (C8); stored data is kept. */
  replaceDirectory(data: DirectoryData): Promise<void>;
  loadDirectory(): Promise<DirectoryData>;

  listCustomEventTypes(adAccountId: string): Promise<CustomEventTypeRow[]>;
  /** Registers a custom event type unless the name exists (case-insensitively) or the cap is reached (C10). */
  createCustomEventType(
    adAccountId: string,
    row: CustomEventTypeRow,
    maxPerAccount: number,
  ): Promise<
    { ok: true; row: CustomEventTypeRow } | { ok: false; reason: 'exists' | 'cap'; existing?: string }
  >;
  deleteCustomEventType(adAccountId: string, name: string): Promise<boolean>;
}

export interface CustomEventTypeRow {
  name: string;
  mappedEventName: string;
  /** Unix seconds. */
  createdAt: number;
}
