import * as vscode from 'vscode';
import { showWarning } from '../notify';
import { ErrorCode, RpcError } from '../../core/jsonrpc/errors';
import { chooseModel } from '../../core/sampling/models';
import type { SamplingPermissions } from '../../core/sampling/permissions';
import type { PlanMessage, SamplingPlan } from '../../core/sampling/request';
import { chatMessages, parseCreateMessage, previewSampling } from '../../core/sampling/request';
import { CompletionCollector, buildCreateMessageResult } from '../../core/sampling/result';
import type { ServerRequestContext, ServerRequestHandler } from '../../core/tasks/engine';
import { noteRefusal, requestAbout } from '../../core/tasks/types';
import { serverWithdrew } from '../../core/tasks/incoming';
import { SAMPLING_CREATE } from '../../core/protocol/schemas';
import { abortReason, abortWith, anySignal, errorMessage, newController, onAbort } from '../../core/util/abort';
import { now } from '../../core/util/builtins';
import type { Logger } from '../../core/util/log';
import { prefixed, truncate } from '../../core/util/log';
import { InFlight } from '../../core/util/inFlight';
import { Turns } from '../../core/util/turns';
import { toCancellationToken } from '../cancellation';
import { executeCommand } from '../editorCommands';
import { setting } from '../configuration';
import type { ConsentAnswer, ConsentPrompter, ConsentRequest } from './consent';
import { QuickPickConsent } from './consent';
import type { HiddenDialogs } from '../hiddenDialogs';

/** The spec's error code for "User rejected sampling request". */
export const USER_REJECTED = -1;

export const PREFERRED_MODEL_SETTING = 'sampling.preferredModel';

export interface SamplingHandlerOptions {
  log: Logger;
  /** The name users know a server by. */
  serverLabel: (serverId: string) => string;
  permissions: SamplingPermissions;
  /** The server's configuration fingerprint: an "always" grant holds only while it is unchanged. */
  serverFingerprint?: (serverId: string) => string | undefined;
  /** Asks the user; defaults to a quick pick. Tests pass their own answers. */
  consentPrompter?: ConsentPrompter;
  /** Where the consent prompt waits when hidden without an answer (else hiding it denies). */
  hidden?: HiddenDialogs;
  /** Model id or family the user prefers; defaults to the setting `mcpTasks.sampling.preferredModel`. */
  preferredModel?: () => string | undefined;
  /** Narrows the models considered (tests pick their own vendor); all models by default. */
  modelSelector?: vscode.LanguageModelChatSelector;
  /** Where the consent prompts wait for their turn; share one with every other dialog servers open. */
  turns?: Turns;
  /** Counts, per task, the requests a model is answering now (consent given): nothing is asked of the user meanwhile. */
  answering?: InFlight;
  /** Counts, per task, its dialogs open or waiting their turn (questions too): its consent prompts count while they are. */
  asking?: InFlight;
  /** Gets the tasks and calls whose failure is not told (TaskIndicators): their request no model could answer (the user told so then), or the user denied it. */
  untold?: Set<string>;
  /** A request its server withdrew (notifications/cancelled) before it was answered: its last message as a row names it, and its server's label (see serverWithdrew). */
  withdrawn?(title: string, server: string): void;
}

/** Answers `sampling/createMessage`; register `{ handle }` with the engine and dispose with the extension. */
export interface SamplingHandler extends vscode.Disposable {
  readonly handle: ServerRequestHandler;
  /** Whether a consent prompt about this task (or direct call) is open or waits its turn. */
  readonly consenting: (key: string) => boolean;
}

/**
 * Answers servers' `sampling/createMessage` requests with the editor's language models, the user
 * in the loop: nothing reaches a model before the user allows it (once, or always for the
 * server), the model follows the user's setting, then the server's hints, and the answer is cut
 * at `maxTokens` and the stop sequences.
 */
export const createSamplingHandler = (o: SamplingHandlerOptions): SamplingHandler => {
  const quickPick = o.consentPrompter ? undefined : new QuickPickConsent(o.hidden);
  const prompt = o.consentPrompter ?? quickPick!.prompt;
  const preferred = o.preferredModel ?? (() => setting<string | undefined>(PREFERRED_MODEL_SETTING, undefined));
  // One prompt at a time, and none over a server's question: another quick input would hide
  // the one shown.
  const turns = o.turns ?? new Turns();
  const answering = o.answering ?? new InFlight();
  const asking = o.asking ?? new InFlight();
  const consenting = new InFlight();

  const consent = async (ctx: ServerRequestContext, request: ConsentRequest, fingerprint: string | undefined, log: Logger): Promise<ConsentAnswer | 'allowed' | 'failed'> => {
    const always = () => o.permissions.get(ctx.serverId, fingerprint) === 'always';
    // A server the user always allows needs no prompt, so it waits for no dialog either.
    if (always()) return 'allowed';
    const about = requestAbout(ctx);
    // Its direct calls wait for the user while the prompt is open or waits its turn.
    return holding(ctx, undefined, () => asking.during(about, () => consenting.during(about, () => turns.take(async (turn) => {
      // Checked again in turn: an earlier prompt may just have granted "always".
      if (always()) return 'allowed';
      // "Always allow" answered on another prompt of this server (shown, or this one hidden) settles this one.
      const granted = newController();
      const sub = o.permissions.onDidChange(() => always() && granted.abort());
      const allowedElsewhere = () => granted.signal.aborted && !ctx.signal.aborted;
      try {
        const answer = await prompt(request, anySignal([ctx.signal, granted.signal]), turn);
        if (allowedElsewhere()) return 'allowed';
        // Granted before the turn passes on: the next prompt of this server is then not shown at all.
        if (answer === 'always') o.permissions.allowAlways(ctx.serverId, request.serverLabel, fingerprint);
        return answer;
      } catch (err) {
        if (allowedElsewhere()) return 'allowed';
        log.error(`The sampling consent prompt failed, so the request is denied: ${errorMessage(err)}`);
        // Its row, if run as a task here: not "Denied by the user", who was not asked.
        ctx.tells?.(`The consent prompt failed: ${errorMessage(err)}`);
        return 'failed';
      } finally {
        sub.dispose();
      }
    }, ctx.signal, about))));
  };

  const handle: ServerRequestHandler = async (params, ctx) => {
    const label = o.serverLabel(ctx.serverId);
    const log = prefixed(o.log, label);
    const parsed = parseCreateMessage(params);
    if (!parsed.ok) {
      log.warn(`Refused ${SAMPLING_CREATE}: ${parsed.error.message}`);
      throw parsed.error;
    }
    const plan = parsed.plan;
    const taskId = ctx.task?.taskId ?? ctx.relatedTaskId;
    log.info(`${SAMPLING_CREATE}${taskId ? ` for task ${taskId}` : ''}: ${describePlan(plan)}`);
    if (plan.includeContext) log.debug(`Ignored includeContext "${plan.includeContext}": this client adds no context to sampling requests`);
    if (plan.temperature !== undefined) log.debug('Ignored temperature: the editor has no portable option for it');
    const messages = chatMessages(plan).map((m) => asChatMessage(m, ctx.tells));
    const preview = previewSampling(plan, { serverLabel: label, taskId, toolName: ctx.task?.toolName });
    if (log.traceEnabled !== false) log.trace(`Sampling request:\n${preview.text}`);

    // A request no model could answer is not put to the user: the user learns what to do instead.
    const models = await vscode.lm.selectChatModels(o.modelSelector);
    if (!models.length) {
      log.warn('No language model is available for sampling');
      // Its row, if run as a task here, in the words of the rows (the warning names a provider).
      ctx.tells?.('No language model is available: install or sign in to a language model provider');
      if (o.untold) noteRefusal(o.untold, ctx, true);
      // The button does what the editor's own "Install Model Providers" (Language Models editor) does.
      void showWarning(
        vscode.l10n.t('MCP server "{0}" asked for a language model answer, but no language model is available. Install or sign in to a language model provider (for example GitHub Copilot Chat).', label),
        vscode.l10n.t('Install Model Providers'),
      ).then((c) => c && executeCommand('workbench.extensions.search', '@tag:language-models'));
      throw new RpcError(
        ErrorCode.InternalError,
        'No language model is available in the editor: the user needs to install or sign in to a language model provider (for example GitHub Copilot Chat) before this server can sample.',
      );
    }
    const fingerprint = o.serverFingerprint?.(ctx.serverId);
    // Chosen first: the consent prompt names the model the request would go to.
    const want = preferred()?.trim();
    const choice = chooseModel(models, plan.hints, want)!;
    ctx.usesModel?.(choice.model.name);
    // Rejects only when the server withdraws the request (cancelled, timed out, disconnected).
    const answer = await consent(ctx, { serverId: ctx.serverId, serverLabel: label, preview, model: choice.model.name }, fingerprint, log).catch(() => 'deny' as const);
    // Before the user answered, or while the model does: told as a question's is, unless the user was not asked (always allowed).
    const withdrawn = () => {
      serverWithdrew(SAMPLING_CREATE, params!, ctx, label, answer === 'allowed' ? undefined : o.withdrawn);
      log.info(`Sampling request withdrawn before it was answered: ${errorMessage(ctx.signal.reason)}`);
      return abortReason(ctx.signal);
    };
    if (ctx.signal.aborted) throw withdrawn();
    if (o.untold) noteRefusal(o.untold, ctx, answer === 'deny' || answer === 'failed');
    // Told already: the prompt failed.
    if (answer === 'failed') throw rejected();
    if (answer === 'deny') {
      log.info('Sampling request denied by the user');
      throw rejected(ctx.tells);
    }
    if (answer === 'always') {
      log.info('Sampling allowed by the user, always for this server ("MCP Tasks: Revoke Sampling Permissions..." undoes it)');
    } else log.info(answer === 'once' ? 'Sampling allowed once by the user' : 'Sampling allowed: the user always allows this server');

    if (want && choice.reason !== 'setting') log.warn(`The preferred model "${want}" (setting mcpTasks.${PREFERRED_MODEL_SETTING}) is not available`);
    // Its direct calls work meanwhile, and their rows say a language model answers.
    try {
      return await holding(ctx, 'model', () => answering.during(requestAbout(ctx), () => sample(choice.model, choice.reason, messages, plan, label, ctx.signal, log, ctx.tells)));
    } catch (err) {
      throw ctx.signal.aborted ? withdrawn() : err;
    }
  };

  return {
    handle,
    consenting: (key) => consenting.has(key),
    dispose: () => quickPick?.dispose(),
  };
};

const sample = async (
  model: vscode.LanguageModelChat,
  reason: string,
  messages: vscode.LanguageModelChatMessage[],
  plan: SamplingPlan,
  label: string,
  signal: AbortSignal,
  log: Logger,
  tells: ServerRequestContext['tells'],
): Promise<Record<string, unknown>> => {
  log.info(`Sampling with ${model.vendor}/${model.id} (${reason})`);
  const started = now();
  // Aborted by the server's cancellation, or by us once the answer is long enough.
  const stop = newController();
  const unforward = onAbort(signal, () => stop.abort(signal.reason));
  const { token, dispose } = toCancellationToken(stop.signal);
  const collector = new CompletionCollector({
    maxTokens: plan.maxTokens,
    stopSequences: plan.stopSequences,
    countTokens: (text) => model.countTokens(text, token),
  });
  let ignored = 0;
  try {
    const response = await model.sendRequest(messages, { justification: vscode.l10n.t('MCP server "{0}" asked for a language model answer (sampling).', label) }, token);
    for await (const part of response.stream) {
      if (!(part instanceof vscode.LanguageModelTextPart)) ignored++;
      else if (await collector.add(part.value)) break;
    }
  } catch (err) {
    if (signal.aborted) throw abortReason(signal);
    if (!collector.done) throw asModelError(err, model, plan, log, tells);
  } finally {
    abortWith(stop, 'sampling finished');
    unforward();
    dispose();
  }
  if (signal.aborted) throw abortReason(signal);
  if (collector.countError !== undefined) log.warn(`Could not count tokens, so maxTokens was not enforced: ${errorMessage(collector.countError)}`);
  if (ignored) log.debug(`Ignored ${ignored} non-text part(s) of the answer`);
  log.info(`Sampling answered by ${model.id}: ${collector.text.length} characters, stopReason ${collector.stopReason}, in ${now() - started} ms`);
  if (log.traceEnabled !== false) log.trace(`Sampling answer: ${truncate(collector.text)}`);
  return buildCreateMessageResult(collector.text, model.id, collector.stopReason);
};

/** Runs `work` while the direct calls the request may be about are held (see ServerRequestContext.hold). */
const holding = async <T>(ctx: ServerRequestContext, as: 'model' | undefined, work: () => Promise<T>): Promise<T> => {
  const release = ctx.hold?.(as);
  try {
    return await work();
  } finally {
    release?.();
  }
};

const describePlan = (plan: SamplingPlan): string => {
  const parts = plan.messages.flatMap((m) => m.parts);
  const media = parts.filter((p) => p.kind !== 'text').length;
  return (
    `${plan.messages.length} message(s)${media ? ` with ${media} image/audio part(s)` : ''}, maxTokens ${plan.maxTokens}` +
    (plan.systemPrompt ? ', a system prompt' : '') +
    (plan.hints.length ? `, hints ${plan.hints.join(', ')}` : '')
  );
};

type DataPartClass = new (data: Uint8Array, mimeType: string) => object;

/** A plan message as the editor's message. Images and audio need `LanguageModelDataPart` (newer editors). */
const asChatMessage = (m: PlanMessage, tells: ServerRequestContext['tells']): vscode.LanguageModelChatMessage => {
  // Not in the @types/vscode (1.101) this extension compiles against; present at run time in newer editors.
  const DataPart = (vscode as unknown as { LanguageModelDataPart?: DataPartClass }).LanguageModelDataPart;
  const parts = m.parts.map((p) => {
    if (p.kind === 'text') return new vscode.LanguageModelTextPart(p.text);
    if (!DataPart) {
      // Its row, if run as a task here: what the user can do about it, where its server is told what it can.
      tells?.(`VS Code ${vscode.version} cannot pass ${p.kind} content to a language model: update VS Code`);
      throw new RpcError(ErrorCode.InvalidParams, `This editor (VS Code ${vscode.version}) cannot pass ${p.kind} content to a language model; send text only.`);
    }
    // A copy: Node may decode small base64 into a shared pool buffer.
    return new DataPart(Uint8Array.from(Buffer.from(p.data, 'base64')), p.mimeType);
  });
  const role = m.role === 'user' ? vscode.LanguageModelChatMessageRole.User : vscode.LanguageModelChatMessageRole.Assistant;
  return new vscode.LanguageModelChatMessage(role, parts as vscode.LanguageModelTextPart[]);
};

/** The user's refusal as the error its server gets, its row (if run as a task here) saying it in the user's words. */
const rejected = (tells?: ServerRequestContext['tells'], why = ''): RpcError => (tells?.(`Denied by the user${why}`), new RpcError(USER_REJECTED, `User rejected sampling request${why}`));

/** A model's failure as the error the server receives. */
const asModelError = (err: unknown, model: vscode.LanguageModelChat, plan: SamplingPlan, log: Logger, tells: ServerRequestContext['tells']): RpcError => {
  const code = err instanceof vscode.LanguageModelError ? err.code : undefined;
  // Not an Error: the workbench failed on its side, e.g. decoding an image that is not one.
  const media = plan.messages.some((m) => m.parts.some((p) => p.kind !== 'text'));
  const why = err instanceof Error ? err.message : `the editor could not process the request${media ? ' (is every image valid?)' : ''}`;
  log.warn(`The language model ${model.id} failed${code ? ` (${code})` : ''}: ${why}${err instanceof Error ? '' : ` ${errorMessage(err)}`}`);
  // The user refused this extension access to the model in the editor's own consent dialog.
  if (code === vscode.LanguageModelError.NoPermissions.name) return rejected(tells, `: no permission to use ${model.name}`);
  return new RpcError(ErrorCode.InternalError, `The language model ${model.name} failed${code ? ` (${code})` : ''}: ${why}`);
};

