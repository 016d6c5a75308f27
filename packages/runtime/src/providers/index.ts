import { OpenAiCompatibleProvider, type OpenAiCompatibleOptions } from './openai-compatible';
import type { ModelProvider } from './provider';
import { ScriptedProvider } from './scripted';

export type ModelProviderConfig = { kind: 'scripted' } | ({ kind: 'openai' } & OpenAiCompatibleOptions);

/** The provider selected by configuration; scripted (offline, deterministic) unless told otherwise. */
export function createModelProvider(config: ModelProviderConfig | undefined): ModelProvider {
  if (!config || config.kind === 'scripted') return new ScriptedProvider();
  if (!config.baseUrl) throw new Error('the openai provider needs a base URL (SWITCHBOARD_OPENAI_BASE_URL)');
  return new OpenAiCompatibleProvider(config);
}
