import type { Model } from '../src/model/model.js';
import { lkmm } from './lkmm.js';
import { sc } from './sc.js';
import { x86tso } from './x86tso.js';

export const MODELS: Record<string, Model> = { lkmm, sc, 'x86-tso': x86tso };

export function getModel(name: string): Model | undefined {
  return MODELS[name === 'tso' || name === 'x86' ? 'x86-tso' : name];
}
