// A small TypeScript module exercising the definitions the extractor knows.
import { EventEmitter } from "events";  // @ref import events @ref name EventEmitter

export const DEFAULT_PAGE_SIZE = 20; // @def constant DEFAULT_PAGE_SIZE
let connectionCount: number = 0; // @def variable connectionCount
declare const BUILD_ID: string; // @decl constant BUILD_ID
declare function emitMetric(name: string, value: number): void; // @decl function emitMetric

export type Id = string | number; // @def type Id
type Mapper<T, U> = (value: T) => U; // @def type Mapper

export type Page = { // @def type Page
  size: number; // @def property Page.size
  next(): Page; // @decl method Page.next @ref type Page in Page.next
};

export type LabeledPage = Page & { // @def type LabeledPage @ref type Page in LabeledPage
  label: string; // @def property LabeledPage.label
};
type Point = { x: number; y: number; norm(): number }; // @def type Point @def property Point.x @def property Point.y @decl method Point.norm

export enum Status { // @def enum Status
  Active, // @def enum_member Status.Active
  Archived = "archived", // @def enum_member Status.Archived
}

const enum Direction { Up = 1, Down } // @def enum Direction @def enum_member Direction.Up @def enum_member Direction.Down

/** Something stored in a repository. */
export interface Entity { // @def interface Entity
  readonly id: Id; // @def property Entity.id
  createdAt?: Date; // @def property Entity.createdAt
  touch(): void; // @decl method Entity.touch
}

export interface Repository<T extends Entity> extends Iterable<T> { // @def interface Repository
  find(id: Id): T | undefined; // @decl method Repository.find
  save(item: T): Promise<void>; // @decl method Repository.save
}

export abstract class BaseRepository<T extends Entity> implements Repository<T> { // @def class BaseRepository
  protected readonly items = new Map<Id, T>(); // @def property BaseRepository.items
  static instances = 0; // @def property BaseRepository.instances
  private events?: EventEmitter; // @def property BaseRepository.events
  onChange = (item: T): void => { // @def method BaseRepository.onChange
    this.events?.emit("change", item);
  };

  constructor(public readonly name: string) { // @def constructor BaseRepository.constructor
    BaseRepository.instances++;
    connectionCount++;
  }

  abstract validate(item: T): boolean; // @decl method BaseRepository.validate

  find(id: Id): T | undefined { // @def method BaseRepository.find @ref type Id in BaseRepository.find
    return this.items.get(id);  // @ref call get in BaseRepository.find
  }

  async save(item: T): Promise<void> { // @def method BaseRepository.save
    if (!this.validate(item)) throw new Error("invalid");
    this.items.set(item.id, item);
    this.onChange(item);
  }

  get size(): number { // @def method BaseRepository.size
    return this.items.size;
  }

  *[Symbol.iterator](): Iterator<T> {
    yield* this.items.values();
  }

  load(id: Id): T; // @decl method BaseRepository.load
  load(ids: Id[]): T[]; // @decl method BaseRepository.load
  load(arg: Id | Id[]): T | T[] { // @def method BaseRepository.load
    return Array.isArray(arg) ? arg.map((id) => this.items.get(id)!) : this.items.get(arg)!;
  }

  #audit(): void { // @def method BaseRepository.#audit
    emitMetric("audit", this.items.size);
  }
}

export class UserRepository extends BaseRepository<User> { // @def class UserRepository
  validate(user: User): boolean { // @def method UserRepository.validate
    return user.email.includes("@");
  }
}

export class User implements Entity { // @def class User
  createdAt = new Date(); // @def property User.createdAt
  constructor(readonly id: Id, public email: string) {} // @def constructor User.constructor
  touch(): void { // @def method User.touch
    this.createdAt = new Date();
  }
}

export namespace Validation { // @def module Validation
  export const EMAIL = /^[^@]+@[^@]+$/; // @def constant Validation.EMAIL

  export function isEmail(value: string): boolean { // @def function Validation.isEmail
    const trimmed = value.trim();
    return EMAIL.test(trimmed);
  }

  export interface Rule { // @def interface Validation.Rule
    check(value: unknown): boolean; // @decl method Validation.Rule.check
  }
}

declare module "cache-lib" { // @def module cache-lib
  export function get(key: string): unknown; // @decl function cache-lib.get
}

export const defaults = { // @def constant defaults
  pageSize: DEFAULT_PAGE_SIZE,
  render(page: number): string {
    return `page ${page}`;
  },
};

export function paginate<T>(items: T[], page: number): T[]; // @decl function paginate
export function paginate<T>(items: T[], page: number, size = DEFAULT_PAGE_SIZE): T[] { // @def function paginate
  return items.slice(page * size, (page + 1) * size);
}

export const toIds = (items: Entity[]): Id[] => items.map((item) => item.id); // @def function toIds

export function firstId(items: Entity[]): Id { // @def function firstId @ref type Entity in firstId @ref type Id in firstId
  const id = items[0].id; // @ref name id in firstId
  track({ id: id }); // @ref call track in firstId @ref name id in firstId
  return id;
}

function* counter(): Generator<number> { // @def function counter
  let n = 0;
  while (true) yield n++;
}
