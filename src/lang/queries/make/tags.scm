; Makefile definitions: rule targets, variables and `define` blocks.

; Each word of a rule's targets is a target (`all clean: ...` defines both). Pattern rules
; (`%.o: %.c`) and special targets (`.PHONY`) are left out.
(rule (targets (word) @name) @definition.target
  (#not-match? @name "^(\\.|.*%)"))

(variable_assignment name: (word) @name) @definition.variable
(define_directive name: (word) @name) @definition.macro

; References: includes and `$(call NAME, ...)`.
(include_directive filenames: (list (word) @name)) @reference.import
