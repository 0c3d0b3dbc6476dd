import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { QUICK_RUN, serviceMissing } from './services.js';

/** Debian's Chromium, never a downloaded browser. */
export const CHROMIUM = '/usr/bin/chromium';
/** Whether the browser tests can run; without it they skip (or, in CI, fail: services.ts). */
export const hasChromium =
  !QUICK_RUN &&
  (existsSync(CHROMIUM) ||
    serviceMissing(`Chromium at ${CHROMIUM}`, 'is not installed (apt-get install chromium)'));

/** Headless, sandbox off (root in CI), and nothing that would reach outside the machine. */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
