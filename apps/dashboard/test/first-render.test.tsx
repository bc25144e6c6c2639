import { MantineProvider, TextInput } from '@mantine/core';
import { useId } from '@mantine/hooks';
import { render, screen } from '@testing-library/react';
import { Profiler } from 'react';
import { describe, expect, it } from 'vitest';
import { i18n } from '../src/i18n/index.ts';
import { buildTheme, cssVariablesResolver } from '../src/theme.ts';
import { api } from './support/api.ts';
import { appFixtures, recordsPage } from './support/fixtures.ts';
import { renderApp } from './support/render.tsx';

/** The ids Mantine's useId gave each render of `WithId`. */
const ids: string[] = [];
function WithId() {
  const id = useId();
  ids.push(id);
  return <span data-testid="with-id" id={id} />;
}

/**
 * What a page shows in its first render is what it keeps: no effect that corrects it right after,
 * which on a phone was a second, synchronous render of the frame or of every input, in the same
 * task as the page's first commit (traces in the dashboard's README, Performance).
 */
describe('the first render is the one kept', () => {
  // patches/@mantine__hooks@9.7.4.patch: Mantine's useId replaced React's id by a random one in a
  // layout effect, so every labelled input, popover and dialog rendered twice when it mounted.
  it("gives Mantine's ids in the first render: an input and a useId render once, with the same id", () => {
    const commits: string[] = [];
    ids.length = 0;
    render(
      <MantineProvider theme={buildTheme(i18n.t)} env="test" cssVariablesResolver={cssVariablesResolver}>
        <Profiler id="inputs" onRender={(_, phase) => commits.push(phase)}>
          <TextInput label="Kilos" />
          <WithId />
        </Profiler>
      </MantineProvider>,
    );
    expect(commits).toEqual(['mount']);
    expect(new Set(ids).size).toBe(1);
    expect(screen.getByTestId('with-id').id).toBe(ids[0]);
    const input = screen.getByLabelText('Kilos');
    expect(input.id).toMatch(/^mantine-/);
  });

  // The tests' matchMedia matches nothing: a phone. The shell used to guess a wide screen first
  // (the organisation and establishment in the header), then move them into the drawer.
  it("never puts a wide screen's scope controls in a phone's header, not even for one render", async () => {
    api.use({ ...appFixtures('owner'), 'records.list': recordsPage([]) });
    // Mutation records arrive after the fact: what was taken out of the header is in their removed
    // nodes, with the element it was taken from.
    const inHeader: string[] = [];
    const observer = new MutationObserver((changes) => {
      for (const change of changes)
        for (const node of change.removedNodes)
          if (change.target instanceof Element && change.target.closest('header') && node.textContent?.includes('Grupo Pepe'))
            inHeader.push(node.textContent);
    });
    observer.observe(document.body, { childList: true, subtree: true });
    try {
      await renderApp('/records');
    } finally {
      observer.disconnect();
    }
    expect(screen.getByRole('banner')).not.toHaveTextContent('Grupo Pepe');
    expect(inHeader).toEqual([]);
  });
});
