import * as vscode from 'vscode';
import type { Logger } from '../core/util/log';

/** The core's logger over the editor's log channel; traffic is built only when trace is on. */
export function channelLogger(channel: vscode.LogOutputChannel): Logger {
  return {
    trace: (m, ...a) => channel.trace(m, ...a),
    debug: (m, ...a) => channel.debug(m, ...a),
    info: (m, ...a) => channel.info(m, ...a),
    warn: (m, ...a) => channel.warn(m, ...a),
    error: (m, ...a) => channel.error(m, ...a),
    get traceEnabled() {
      return channel.logLevel === vscode.LogLevel.Trace;
    },
  };
}
