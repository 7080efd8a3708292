; SQL definitions. The definition node is the whole statement so comments above it are its
; documentation; a schema-qualified name `blog.posts` is `posts` qualified by `blog`.

(statement
  (create_table
    (object_reference schema: (identifier) @context name: (identifier) @name))) @definition.table
(statement
  (create_table
    (object_reference !schema name: (identifier) @name))) @definition.table

; Columns, inside their table or added by ALTER TABLE.
(column_definitions (column_definition name: (identifier) @name) @definition.field)
(alter_table
  (object_reference) @context
  (add_column (column_definition name: (identifier) @name) @definition.field))

(statement
  [(create_view (object_reference schema: (identifier) @context name: (identifier) @name))
   (create_materialized_view (object_reference schema: (identifier) @context name: (identifier) @name))]) @definition.view
(statement
  [(create_view (object_reference !schema name: (identifier) @name))
   (create_materialized_view (object_reference !schema name: (identifier) @name))]) @definition.view

(statement (create_index column: (identifier) @name)) @definition.index

(statement
  (create_function
    (keyword_function) .
    (object_reference schema: (identifier) @context name: (identifier) @name))) @definition.function
(statement
  (create_function
    (keyword_function) .
    (object_reference !schema name: (identifier) @name))) @definition.function

(statement
  (create_trigger
    (keyword_trigger) .
    (object_reference schema: (identifier) @context name: (identifier) @name))) @definition.trigger
(statement
  (create_trigger
    (keyword_trigger) .
    (object_reference !schema name: (identifier) @name))) @definition.trigger

; `CREATE TYPE ... AS ENUM (...)` is an enum whose labels are its members, `CREATE TYPE ... AS
; (...)` a composite (struct) of fields; other types are types.
(statement
  (create_type
    (object_reference schema: (identifier) @context name: (identifier) @name)
    (enum_elements))) @definition.enum
(statement
  (create_type
    (object_reference !schema name: (identifier) @name)
    (enum_elements))) @definition.enum
(enum_elements enum_element: (literal) @name @definition.enum_member)
(statement
  (create_type
    (object_reference schema: (identifier) @context name: (identifier) @name)
    (column_definitions))) @definition.struct
(statement
  (create_type
    (object_reference !schema name: (identifier) @name)
    (column_definitions))) @definition.struct
(statement
  (create_type
    (object_reference schema: (identifier) @context name: (identifier) @name))) @definition.type
(statement
  (create_type
    (object_reference !schema name: (identifier) @name))) @definition.type

(statement (create_schema (identifier) @name)) @definition.module

; References.
(invocation (object_reference name: (identifier) @name)) @reference.call
(relation (object_reference name: (identifier) @name)) @reference.table
