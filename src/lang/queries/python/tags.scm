; Python definitions.

(class_definition name: (identifier) @name) @definition.class

; A function directly in a class body is a method; `__init__` is the constructor.
(class_definition
  body: (block
          [(function_definition name: (identifier) @name) @definition.method
           (decorated_definition definition: (function_definition name: (identifier) @name) @definition.method)]))
(function_definition name: (identifier) @name) @definition.function

; Module-level assignments: UPPER_CASE names are constants, the rest variables.
(module (expression_statement (assignment left: (identifier) @name) @definition.constant)
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))
(module (expression_statement (assignment left: (identifier) @name) @definition.variable)
  (#not-match? @name "^_*[A-Z][A-Z0-9_]*$"))
; Class attributes.
(class_definition
  body: (block (expression_statement (assignment left: (identifier) @name) @definition.field)))

(call function: [(identifier) @name (attribute attribute: (identifier) @name)]) @reference.call
