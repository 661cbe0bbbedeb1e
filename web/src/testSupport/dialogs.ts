/**
 * jsdom has no HTMLDialogElement.showModal/close: the component tests give it the two, enough for
 * the `open` attribute (what makes the dialog and its content accessible) to follow.
 */
import { beforeAll } from 'vitest';

export function withDialogs(): void {
  beforeAll(() => {
    const proto = HTMLDialogElement.prototype as { showModal?: () => void; close?: () => void };
    proto.showModal ??= function (this: HTMLDialogElement) {
      this.setAttribute('open', '');
    };
    proto.close ??= function (this: HTMLDialogElement) {
      this.removeAttribute('open');
      this.dispatchEvent(new Event('close'));
    };
  });
}
