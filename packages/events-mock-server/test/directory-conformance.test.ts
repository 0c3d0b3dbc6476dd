// The directory part of every Store implementation (C8, C10; issue 36: one conformance suite per part, each
// against every implementation): accounts, apps, users and tokens, and custom event types.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { Store } from '../src/store/interface/store.js';
import { ACCOUNT, directory, OTHER } from './support/store-fixtures.js';
import { type OpenedStore, STORE_IMPLEMENTATIONS } from './support/store-implementations.js';

for (const impl of STORE_IMPLEMENTATIONS) {
  describe.skipIf(!impl.run)(`Directory conformance: ${impl.name}`, () => {
    let opened: OpenedStore;
    let store: Store;
    beforeEach(async () => {
      opened = await impl.open();
      store = opened.store;
    });
    afterEach(() => opened.cleanup());

    test('ping answers; the directory is replaced and read back whole', async () => {
      await store.ping();
      await store.replaceDirectory(directory);
      await store.replaceDirectory(directory);
      const d = await store.loadDirectory();
      expect(d.accounts).toEqual(directory.accounts);
      expect(d.apps).toEqual(directory.apps);
      expect(d.users).toEqual(directory.users);
      expect(d.tokens.map((t) => ({ ...t, sha256: Buffer.from(t.sha256).toString('hex') }))).toEqual(
        directory.tokens.map((t) => ({ ...t, sha256: t.sha256.toString('hex') })),
      );
      await store.replaceDirectory({ accounts: [directory.accounts[0]!], apps: [], users: [], tokens: [] });
      expect((await store.loadDirectory()).accounts.map((a) => a.id)).toEqual([ACCOUNT]);
    });

    test('custom event types: case-insensitive names, the cap, delete', async () => {
      const row = (name: string, createdAt: number) => ({ name, mappedEventName: 'lead', createdAt });
      expect(await store.createCustomEventType(ACCOUNT, row('Quote_Request', 100), 2)).toEqual({
        ok: true,
        row: row('Quote_Request', 100),
      });
      expect(await store.createCustomEventType(ACCOUNT, row('quote_request', 101), 2)).toEqual({
        ok: false,
        reason: 'exists',
        existing: 'Quote_Request',
      });
      expect((await store.createCustomEventType(ACCOUNT, row('trial', 102), 2)).ok).toBe(true);
      expect(await store.createCustomEventType(ACCOUNT, row('third', 103), 2)).toEqual({
        ok: false,
        reason: 'cap',
      });
      expect((await store.createCustomEventType(OTHER, row('third', 104), 2)).ok).toBe(true);
      expect(await store.listCustomEventTypes(ACCOUNT)).toEqual([
        { name: 'Quote_Request', mappedEventName: 'lead', createdAt: 100 },
        { name: 'trial', mappedEventName: 'lead', createdAt: 102 },
      ]);
      expect(await store.deleteCustomEventType(ACCOUNT, 'QUOTE_REQUEST')).toBe(true);
      expect(await store.deleteCustomEventType(ACCOUNT, 'quote_request')).toBe(false);
      expect((await store.listCustomEventTypes(ACCOUNT)).map((r) => r.name)).toEqual(['trial']);
    });
  });
}
