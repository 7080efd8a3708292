; Python definitions.

(class_definition name: (identifier) @name) @definition.class

; A function directly in a class body is a method; `__init__` is the constructor.
(class_definition
  body: (block
          [(function_definition name: (identifier) @name) @definition.method
           (decorated_definition definition: (function_definition name: (identifier) @name) @definition.method)]))
(function_definition name: (identifier) @name) @definition.function

; Module-level assignments: UPPER_CASE names are constants, the rest variables (one pattern
; each: a pair with `#match?` and `#not-match?` compiles in twice the time).
(module (expression_statement (assignment left: (identifier) @name) @definition.variable)
  (#kind-if-match? @name "^_*[A-Z][A-Z0-9_]*$" constant))
; Assignments in a module-level `if`, `try`, `with` or loop (`if TYPE_CHECKING:`, a fallback
; for an import that failed) bind names of the module too, as do those in their `else`,
; `elif`, `except` and `finally` clauses.
((module (_ (block (expression_statement (assignment left: (identifier) @name) @definition.variable))) @_in)
  (#kind-is? @_in if_statement try_statement with_statement for_statement while_statement)
  (#kind-if-match? @name "^_*[A-Z][A-Z0-9_]*$" constant))
((module (_ (_ (block (expression_statement (assignment left: (identifier) @name) @definition.variable))) @_in))
  (#kind-is? @_in else_clause elif_clause except_clause finally_clause)
  (#kind-if-match? @name "^_*[A-Z][A-Z0-9_]*$" constant))
; Class attributes.
(class_definition
  body: (block (expression_statement (assignment left: (identifier) @name) @definition.field)))
; Instance attributes: the first `self.x = ...` of a class's methods is the class's field `x`;
; a later one is a use of it (a reference), as is one outside any class.
((assignment left: (attribute object: (identifier) @_self attribute: (identifier) @name) @definition.field)
  (#eq? @_self "self"))

; References, for the symbol graph: calls, imports (the module as written), type annotations,
; and every other name read; names bound in a function (parameters, assignments, loop targets)
; are local there.
(call function: [(identifier) @name (attribute attribute: (identifier) @name)]) @reference.call
(import_statement name: [(dotted_name) @name (aliased_import name: (dotted_name) @name)]) @reference.import
(import_from_statement module_name: [(dotted_name) (relative_import)] @name) @reference.import
(import_from_statement name: [(dotted_name (identifier) @name)
                              (aliased_import name: (dotted_name (identifier) @name))]) @reference.import_name
(import_from_statement (wildcard_import) @name) @reference.import_name
(import_from_statement module_name: [(dotted_name (identifier) @name @reference.none)
                                     (relative_import (dotted_name (identifier) @name @reference.none))])
(import_statement name: [(dotted_name (identifier) @name @reference.none)
                         (aliased_import (dotted_name (identifier) @name @reference.none))])
(aliased_import alias: (identifier) @name @reference.none)
(type [(identifier) @name
       (generic_type (identifier) @name)
       (attribute attribute: (identifier) @name)]) @reference.type
(attribute attribute: (identifier) @name) @reference.name
((identifier) @name @reference.name
  (#not-any-of? @name "self" "cls"))
(keyword_argument name: (identifier) @name @reference.none)
(parameters [(identifier) @local.definition
             (default_parameter name: (identifier) @local.definition)
             (typed_parameter (identifier) @local.definition)
             (typed_default_parameter name: (identifier) @local.definition)
             (list_splat_pattern (identifier) @local.definition)
             (dictionary_splat_pattern (identifier) @local.definition)])
(lambda_parameters [(identifier) @local.definition
                    (default_parameter name: (identifier) @local.definition)])
(assignment left: [(identifier) @local.definition
                   (pattern_list (identifier) @local.definition)
                   (tuple_pattern (identifier) @local.definition)])
(augmented_assignment left: (identifier) @local.definition)
(for_statement left: [(identifier) @local.definition (pattern_list (identifier) @local.definition)])
(for_in_clause left: [(identifier) @local.definition (pattern_list (identifier) @local.definition)])
(with_item value: (as_pattern alias: (as_pattern_target (identifier) @local.definition)))
(except_clause (as_pattern alias: (as_pattern_target (identifier) @local.definition)))
(named_expression name: (identifier) @local.definition)

; Values bound to names, kept to type receivers (never uses): `app = Flask(...)`,
; `client = app.test_client()`, `with app.app_context() as ctx`, and what a function returns
; or yields (`return app`); a name imported under another (`from .app import App as Base`);
; a loop's variable, bound to an element of what it loops over.
(assignment left: (identifier) @name right: (_) @value) @reference.binding
(with_item value: (as_pattern (_) @value alias: (as_pattern_target (identifier) @name))) @reference.binding
(import_from_statement name: (aliased_import name: (dotted_name) @value alias: (identifier) @name)) @reference.binding
(for_statement left: (identifier) @name right: (_) @value) @reference.binding
(for_in_clause left: (identifier) @name right: (_) @value) @reference.binding
(return_statement (_) @value) @reference.binding
(yield (_) @value) @reference.binding
