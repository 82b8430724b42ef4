import * as vscode from 'vscode';
import type { Logger } from '../core/util/log';
import { logLine } from '../core/util/log';
import { isString } from '../core/util/json';

/** The core's logger over the editor's log channel, lines capped; traffic is built only when trace is on. */
export const channelLogger = (channel: vscode.LogOutputChannel): Logger => {
  return {
    trace: (m, ...a) => channel.trace(logLine(m), ...a),
    debug: (m, ...a) => channel.debug(logLine(m), ...a),
    info: (m, ...a) => channel.info(logLine(m), ...a),
    warn: (m, ...a) => channel.warn(logLine(m), ...a),
    error: (m, ...a) => channel.error(isString(m) ? logLine(m) : m, ...a),
    get traceEnabled() {
      return channel.logLevel === vscode.LogLevel.Trace;
    },
  };
};
