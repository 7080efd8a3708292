#!/usr/bin/env bash
# The `ts-modules` repository: an ES module sees its own names and what it imports.
# Usage: ts-modules.sh DIR
#
# The story: `test/browser.ts` exports a module-level `server`; `test/base.ts`, beside it,
# makes a `server` of its own inside a test callback and never imports the other: its uses
# are not the sibling's. It imports `helper` from `src/util.ts`, which resolves through the
# import, and names the type `Options` that `types/global.d.ts` declares for every file; its
# `settings.helper` is a member read, not the imported function.
# `test/package.ts` imports `helper` by the package's own name, as a package's tests do: the
# view's only `helper` is meant. `src/options.ts` has two interfaces with a `context` each; a
# parameter's annotation says whose a member read is, also for a function assigned to a
# constant of a function type (`const handle: Handler = (request, options) => ...`), and
# beside a local of the same name (`const context = options.context`); an object literal's
# key passed to a call is the member of the parameter's type (`configure("a", {context})`),
# another object's key is no use. A member the parameter's type inherits is its base's
# (`DerivedOptions extends BaseOptions`); one of a type the view does not define
# (`request: Request`) is none of the view's. `test/client.ts` reads the default export of
# `src/client.ts`, a constant holding what `createClient` returns (`Client`), so its
# `client.fetch` is `Client.fetch`, not the class `Server`'s.

. "$(dirname "$0")/lib.sh"
new_repo "$1"

write src/util.ts <<'TS'
export function helper(x: number): number {
  return x + 1;
}
TS
write types/global.d.ts <<'TS'
interface Options {
  retries: number;
}
TS
write test/browser.ts <<'TS'
export const server = {url: "http://localhost"};

export function start(): string {
  return server.url;
}
TS
write test/base.ts <<'TS'
import {helper} from "../src/util";

test("base url", async () => {
  const server = await makeServer();
  const options: Options = {retries: helper(1)};
  return [server.url, options];
});

export const fromSettings = (settings: any): number => settings.helper;
TS
write test/package.ts <<'TS'
import {
  helper,
} from "tsmod";

export const two = helper(1);
TS
write src/options.ts <<'TS'
export interface InputOptions {
  context: string;
}

export interface NormalizedOptions {
  context: string;
}

export type Handler = (request: string, options: NormalizedOptions) => string;

export function fromOptions(options: InputOptions): string {
  const context = options.context;
  return context;
}

export function fromNormalized(options?: NormalizedOptions): string {
  return options ? options.context : "";
}

export const handle: Handler = (request, options) => request + options.context;

export function configure(label: string, options: InputOptions): string {
  return label + options.context;
}

export const configured = configure("a", {context: "b"});
export const loose = {context: "c"};

export interface BaseOptions {
  retries: number;
}

export interface DerivedOptions extends BaseOptions {
  name: string;
}

export interface OtherOptions {
  retries: number;
}

export function fromDerived(options: DerivedOptions, request: Request): number {
  return options.retries + request.retries;
}
TS
write src/client.ts <<'TS'
export type Client = {
  fetch: (url: string) => string;
};

const createClient = (base: string): Client => ({fetch: (url: string) => base + url});

const client = createClient("http://localhost");
export default client;

export class Server {
  static fetch(url: string): string {
    return url;
  }
}
TS
write test/client.ts <<'TS'
import client from "../src/client";

export const page = client.fetch("/page");
TS
write package.json <<'JSON'
{"name": "tsmod", "version": "1.0.0"}
JSON
commit "A helper, a global type, and two tests with a server each"

# A queue whose `push` and `headers` share their names with builtin members: a value of
# unknown type (`const items = []`, `this.request`) using them is as likely the builtin's
# and is not listed; a value whose type says `Queue` is.
write src/queue.ts <<'TS'
export class Queue {
  headers: string[] = [];

  push(item: string): void {
    this.headers.push(item);
  }
}

export function fill(queue: Queue, words: string[]): string[] {
  const items = [];
  for (const word of words) {
    queue.push(word);
    items.push(word);
  }
  return items;
}

export class Sender {
  request = new Request("http://localhost");

  send(): number {
    return this.request.headers.get("x") ? 1 : 0;
  }
}
TS
commit "A queue with builtin member names"

# A function whose signature is long (over 300 characters): the parameter whose type an
# object literal's key is read by sits in the middle of it, and still counts
# (`configureAll(..., {context: "h"}, ...)` is `InputOptions.context`).
write src/long.ts <<'TS'
import {InputOptions} from "./options";

export function configureAll(
  firstLabelOfAVeryLongParameterList: string,
  secondLabelOfAVeryLongParameterList: string,
  thirdLabelOfAVeryLongParameterList: string,
  fourthLabelOfAVeryLongParameterList: string,
  fifthLabelOfAVeryLongParameterList: string,
  options: InputOptions,
  sixthLabelOfAVeryLongParameterList: string,
  seventhLabelOfAVeryLongParameterList: string,
): string {
  return firstLabelOfAVeryLongParameterList + options.context;
}

export const configuredAll = configureAll("a", "b", "c", "d", "e", {context: "h"}, "i", "j");
TS
commit "A function with a long signature"

# Three modules declare a type `Getter`; only `src/getters.ts` exports it, and `src/index.ts`
# re-exports it. `src/atom.ts` and `src/store.ts` keep theirs to themselves (`store.ts` lists
# its own in an `export { ... }` of other names): a file importing `Getter` from the index
# means the exported one, never a module's private one. `types/ambient.ts` is a script (no
# import or export): its `Shared` is every file's.
write src/getters.ts <<'TS'
export type Getter = () => number;
TS
write src/atom.ts <<'TS'
type Getter = () => string;

export const read = (get: Getter): string => get();
TS
write src/store.ts <<'TS'
type Getter = () => boolean;

const check = (get: Getter): boolean => get();

export { check };
TS
write src/index.ts <<'TS'
export type { Getter } from "./getters";
TS
write types/ambient.ts <<'TS'
type Shared = { id: number };
TS
write test/getter.ts <<'TS'
import type { Getter } from "../src/index";

export const one: Getter = () => 1;
export const shared: Shared = { id: 1 };
TS
commit "Three modules with a type Getter each, one of them exported"
