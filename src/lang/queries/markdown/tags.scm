; Markdown definitions (block grammar).
;
; An ATX heading is captured through its `section`, which spans the heading and everything up to
; the next heading of the same or a higher level, so sections nest by level and a heading's
; qualified name is its path of headings: `Usage > Configuration`.

(section
  (atx_heading heading_content: (inline) @name)) @definition.heading

; The grammar does not open a section for a setext heading (`Title` underlined with `===` or
; `---`): it is a block inside the enclosing ATX section, so the heading itself is the
; definition. It is qualified by the ATX headings around it, but what follows it is not nested
; under it.
(setext_heading heading_content: (paragraph (inline) @name)) @definition.heading
