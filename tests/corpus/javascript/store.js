// A small ES module exercising the definitions the extractor knows.
import { EventEmitter } from "node:events";  // @ref import node:events @ref name EventEmitter

export const MAX_ITEMS = 100; // @def constant MAX_ITEMS
const DEFAULTS = { ttl: 60 }, PREFIX = "store:"; // @def constant DEFAULTS @def constant PREFIX
export const helpers = { // @def constant helpers
  describe(store) {
    return `${store.name} (${store.items.size})`;
  },
};
let instances = 0; // @def variable instances
var legacyMode = false; // @def variable legacyMode

/** Builds a cache key. */
export function makeKey(name) { // @def function makeKey
  return PREFIX + name;  // @ref name PREFIX in makeKey
}

function* ids(start = 0) { // @def function ids
  let id = start;
  while (true) yield id++;
}

async function loadAll(store, keys) { // @def function loadAll
  const results = [];
  for (const key of keys) {
    results.push(await store.get(key));
  }
  return results;
}

export const normalize = (value) => String(value).trim(); // @def function normalize
const clamp = function (n, lo, hi) { // @def function clamp
  return Math.min(hi, Math.max(lo, n));
};

/** An in-memory key-value store. */
export class Store extends EventEmitter { // @def class Store
  static count = 0; // @def property Store.count
  items = new Map(); // @def property Store.items
  #secret = "s3cr3t"; // @def property Store.#secret
  onPut = (key) => this.emit("put", key); // @def method Store.onPut

  constructor(name) { // @def constructor Store.constructor
    super();
    this.name = name;
    Store.count += 1;
    instances += 1;
  }

  get size() { // @def method Store.size
    return this.items.size;
  }

  set limit(value) { // @def method Store.limit
    this.max = value;
  }

  async get(key) { // @def method Store.get
    return this.items.get(makeKey(key));  // @ref call get in Store.get @ref call makeKey in Store.get
  }

  put(key, value) { // @def method Store.put
    const local = () => key;
    this.items.set(makeKey(local()), value);
    this.onPut(key);
  }

  *entries() { // @def method Store.entries
    yield* this.items.entries();
  }

  #rotate() { // @def method Store.#rotate
    return this.#secret.split("").reverse().join("");
  }

  static create(name) { // @def method Store.create
    return new Store(name);
  }
}

export default class TtlStore extends Store { // @def class TtlStore
  constructor(name, ttl = DEFAULTS.ttl) { // @def constructor TtlStore.constructor
    super(name);
    this.ttl = ttl;
  }

  expire() { // @def method TtlStore.expire
    this.items.clear();
  }
}

const Mixin = class { // @def class Mixin
  mixed() { // @def method Mixin.mixed
    return true;
  }
};
