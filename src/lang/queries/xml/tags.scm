; XML definitions: elements that carry an `id` (or `xml:id`), named by it.

(element
  [(STag (Attribute (Name) @_attr (AttValue) @name))
   (EmptyElemTag (Attribute (Name) @_attr (AttValue) @name))]
  (#any-of? @_attr "id" "xml:id")) @definition.element
