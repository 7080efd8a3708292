; CSS definitions.
;
; Rule sets are named by their whole selector list (`.btn, .btn-link`); rules nested in a rule
; (CSS nesting) or in a conditional group rule are qualified by it, with a space.

(rule_set (selectors) @name) @definition.selector

(keyframes_statement (keyframes_name) @name) @definition.keyframes

; Conditional group rules qualify the rules inside them: `@media (max-width: 768px) .nav`.
(media_statement "@media" @context . (_) @name (block)) @definition.block
(supports_statement "@supports" @context . (_) @name (block)) @definition.block
; Other at-rules with a prelude and a block: `@layer components { ... }`, `@container ...`.
(at_rule (at_keyword) @context . (_) @name (block)) @definition.block

; Custom properties (`--brand-color: ...`), wherever they are declared.
((declaration (property_name) @name) @definition.variable
  (#match? @name "^--"))
