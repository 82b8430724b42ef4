// The few parts of the `vscode` module the Tasks view uses, for running it in plain Node.
// Installed with a Module._load hook by install(); nothing here pretends to render anything.
const Module = require('node:module');

class EventEmitter {
  constructor() {
    this.listeners = new Set();
    this.event = (listener) => {
      this.listeners.add(listener);
      return { dispose: () => this.listeners.delete(listener) };
    };
  }
  fire(e) {
    for (const l of [...this.listeners]) l(e);
  }
  dispose() {
    this.listeners.clear();
  }
}
class TreeItem {
  constructor(label, collapsibleState = 0) {
    this.label = label;
    this.collapsibleState = collapsibleState;
  }
}
class ThemeColor {
  constructor(id) {
    this.id = id;
  }
}
class ThemeIcon {
  constructor(id, color) {
    this.id = id;
    this.color = color;
  }
}
class MarkdownString {
  constructor(value = '', supportThemeIcons = false) {
    this.value = value;
    this.supportThemeIcons = supportThemeIcons;
  }
  appendMarkdown(s) {
    this.value += s;
    return this;
  }
  appendText(s) {
    this.value += s.replace(/[\\`*_{}[\]()#+\-.!]/g, '\\$&');
    return this;
  }
  appendCodeblock(code, lang = '') {
    this.value += `\n\`\`\`${lang}\n${code}\n\`\`\`\n`;
    return this;
  }
}
// setContext (the view's mcpTasks.hasFinished) goes nowhere.
const commands = { executeCommand: async () => undefined };
const stub = { EventEmitter, TreeItem, ThemeColor, ThemeIcon, MarkdownString, commands, TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 } };

function install() {
  const load = Module._load;
  Module._load = function (request, parent, isMain) {
    return request === 'vscode' ? stub : load.call(this, request, parent, isMain);
  };
}

module.exports = { install, stub };
