/**
 * The kinds of a form field (`FieldKind` in ./plan): JSON Schema's types a field may have, and the
 * two kinds of choice, and a list of typed values (tools only). One string each in the bundle, not
 * one at each of their 40 uses.
 */
export const STRING = 'string';
export const NUMBER = 'number';
export const INTEGER = 'integer';
export const BOOLEAN = 'boolean';
export const SINGLE_SELECT = 'single-select';
export const MULTI_SELECT = 'multi-select';
export const LIST = 'list';
