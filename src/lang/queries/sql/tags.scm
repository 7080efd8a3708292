; SQL definitions. The definition node is the whole statement so comments above it are its
; documentation; a schema-qualified name `blog.posts` is `posts` qualified by `blog`.
;
; Compiling a query, tree-sitter analyses every named node that holds another against the
; parse states of the grammar it can occur in: the nodes inside a pattern's outermost one are
; wildcards (`(_ name: ...)`, which tree-sitter does not analyse) whose kinds the extractor
; checks (`#kind-is?`): @_ref is an `object_reference`. With them named, the query took
; 0.18 s to compile.

((statement (_ (_ schema: (identifier) @context name: (identifier) @name) @_ref) @_create) @definition.table
  (#kind-is? @_create create_table) (#kind-is? @_ref object_reference))
((statement (_ (_ !schema name: (identifier) @name) @_ref) @_create) @definition.table
  (#kind-is? @_create create_table) (#kind-is? @_ref object_reference))

; Columns, inside their table or added by ALTER TABLE.
((column_definition name: (identifier) @name) @definition.field
  (#parent-is? @definition.field column_definitions))
((alter_table
   (object_reference) @context
   (_ (_ name: (identifier) @name) @definition.field) @_add)
  (#kind-is? @_add add_column) (#kind-is? @definition.field column_definition))

((statement (_ (_ schema: (identifier) @context name: (identifier) @name) @_ref) @_create) @definition.view
  (#kind-is? @_create create_view create_materialized_view) (#kind-is? @_ref object_reference))
((statement (_ (_ !schema name: (identifier) @name) @_ref) @_create) @definition.view
  (#kind-is? @_create create_view create_materialized_view) (#kind-is? @_ref object_reference))

((statement (_ column: (identifier) @name) @_create) @definition.index
  (#kind-is? @_create create_index))

((statement (_ (keyword_function) . (_ schema: (identifier) @context name: (identifier) @name) @_ref) @_create) @definition.function
  (#kind-is? @_create create_function) (#kind-is? @_ref object_reference))
((statement (_ (keyword_function) . (_ !schema name: (identifier) @name) @_ref) @_create) @definition.function
  (#kind-is? @_create create_function) (#kind-is? @_ref object_reference))

((statement (_ (keyword_trigger) . (_ schema: (identifier) @context name: (identifier) @name) @_ref) @_create) @definition.trigger
  (#kind-is? @_create create_trigger) (#kind-is? @_ref object_reference))
((statement (_ (keyword_trigger) . (_ !schema name: (identifier) @name) @_ref) @_create) @definition.trigger
  (#kind-is? @_create create_trigger) (#kind-is? @_ref object_reference))

; `CREATE TYPE ... AS ENUM (...)` is an enum whose labels are its members, `CREATE TYPE ... AS
; (...)` a composite (struct) of fields; other types are types.
((statement (_ (_ schema: (identifier) @context name: (identifier) @name) @_ref (enum_elements)) @_create) @definition.enum
  (#kind-is? @_create create_type) (#kind-is? @_ref object_reference))
((statement (_ (_ !schema name: (identifier) @name) @_ref (enum_elements)) @_create) @definition.enum
  (#kind-is? @_create create_type) (#kind-is? @_ref object_reference))
(enum_elements enum_element: (literal) @name @definition.enum_member)
((statement (_ (_ schema: (identifier) @context name: (identifier) @name) @_ref (column_definitions)) @_create) @definition.struct
  (#kind-is? @_create create_type) (#kind-is? @_ref object_reference))
((statement (_ (_ !schema name: (identifier) @name) @_ref (column_definitions)) @_create) @definition.struct
  (#kind-is? @_create create_type) (#kind-is? @_ref object_reference))
((statement (_ (_ schema: (identifier) @context name: (identifier) @name) @_ref) @_create) @definition.type
  (#kind-is? @_create create_type) (#kind-is? @_ref object_reference))
((statement (_ (_ !schema name: (identifier) @name) @_ref) @_create) @definition.type
  (#kind-is? @_create create_type) (#kind-is? @_ref object_reference))

((statement (_ (identifier) @name) @_create) @definition.module
  (#kind-is? @_create create_schema))

; References.
((invocation (_ name: (identifier) @name) @_ref) @reference.call
  (#kind-is? @_ref object_reference))
((relation (_ name: (identifier) @name) @_ref) @reference.table
  (#kind-is? @_ref object_reference))
