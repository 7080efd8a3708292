; Lua definitions.

; `function f()`, `local function f()`, `function M.f()`, `function a.b.f()` and
; `function M:m()`: the table path qualifies the name.
(function_declaration name: (identifier) @name) @definition.function
(function_declaration
  name: (dot_index_expression table: (_) @context field: (identifier) @name)) @definition.function
(function_declaration
  name: (method_index_expression table: (_) @context method: (identifier) @name)) @definition.method

; `f = function() end`, `local f = function() end`, `M.f = function() end`.
(variable_declaration
  (assignment_statement
    (variable_list . name: (identifier) @name)
    (expression_list . value: (function_definition)))) @definition.function
(chunk
  (assignment_statement
    (variable_list . name: (identifier) @name)
    (expression_list . value: (function_definition))) @definition.function)
(chunk
  (assignment_statement
    (variable_list . name: (dot_index_expression table: (_) @context field: (identifier) @name))
    (expression_list . value: (function_definition))) @definition.function
  (#not-eq? @context "self"))
(block
  (assignment_statement
    (variable_list . name: (identifier) @name)
    (expression_list . value: (function_definition))) @definition.function)
(block
  (assignment_statement
    (variable_list . name: (dot_index_expression table: (_) @context field: (identifier) @name))
    (expression_list . value: (function_definition))) @definition.function
  (#not-eq? @context "self"))

; Functions in the table a module assigns to a top-level variable or returns.
(chunk
  (variable_declaration
    (assignment_statement
      (variable_list . name: (identifier) @context)
      (expression_list . value: (table_constructor
        (field name: (identifier) @name value: (function_definition)) @definition.function)))))
(chunk
  (assignment_statement
    (variable_list . name: (identifier) @context)
    (expression_list . value: (table_constructor
      (field name: (identifier) @name value: (function_definition)) @definition.function))))
(chunk
  (return_statement
    (expression_list . (table_constructor
      (field name: (identifier) @name value: (function_definition)) @definition.function))))

; Top-level variables, but not `local x = require(...)` imports. `<const>` and UPPER_CASE
; names are constants.
(chunk
  (variable_declaration
    (assignment_statement
      (variable_list . name: (identifier) @name attribute: (attribute (identifier) @_attr))))
  @definition.constant
  (#eq? @_attr "const"))
(chunk
  (variable_declaration
    (assignment_statement
      (variable_list name: (identifier) @name)
      (expression_list . value: (_) @_value)))
  @definition.constant
  (#match? @name "^_*[A-Z][A-Z0-9_]+$")
  (#not-match? @_value "^require"))
(chunk
  (assignment_statement
    (variable_list name: (identifier) @name)
    (expression_list . value: (_) @_value))
  @definition.constant
  (#match? @name "^_*[A-Z][A-Z0-9_]+$")
  (#not-match? @_value "^require"))
(chunk
  (variable_declaration
    (assignment_statement
      (variable_list name: (identifier) @name)
      (expression_list . value: (_) @_value)))
  @definition.variable
  (#not-match? @_value "^require"))
(chunk
  (assignment_statement
    (variable_list name: (identifier) @name)
    (expression_list . value: (_) @_value))
  @definition.variable
  (#not-match? @_value "^require"))
; `local x` declares without a value.
(chunk (variable_declaration (variable_list name: (identifier) @name)) @definition.variable)

; References.
(function_call name: (identifier) @name) @reference.call
(function_call name: (dot_index_expression field: (identifier) @name)) @reference.call
(function_call name: (method_index_expression method: (identifier) @name)) @reference.call

; Imports, for the symbol graph: the module or path as written.
((function_call name: (identifier) @_r arguments: (arguments . (string) @name)) @reference.import
  (#eq? @_r "require"))
