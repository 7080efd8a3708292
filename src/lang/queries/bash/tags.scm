; Bash (and sh, zsh, ksh) definitions.

; `f() { ... }`, `function f { ... }` and `function f() { ... }`.
(function_definition name: (word) @name) @definition.function

; Variables set at the top of a script: `readonly X=` and `declare -r X=` are constants,
; `export X=`, `declare X=` and plain `X=` are variables. A bare `export X` sets nothing.
(program
  (declaration_command "readonly" (variable_assignment name: (variable_name) @name)) @definition.constant)
(program
  (declaration_command
    (word) @_flag
    (variable_assignment name: (variable_name) @name)
    (#match? @_flag "^-[a-zA-Z]*r")) @definition.constant)
(program
  (declaration_command (variable_assignment name: (variable_name) @name)) @definition.variable)
(program
  (variable_assignment name: (variable_name) @name) @definition.variable)
(program
  (variable_assignments (variable_assignment name: (variable_name) @name)) @definition.variable)

; References.
(command name: (command_name (word) @name)) @reference.call

; Imports, for the symbol graph: the module or path as written.
((command name: (command_name (word) @_c) argument: [(word) (string) (raw_string)] @name) @reference.import
  (#any-of? @_c "source" "."))
