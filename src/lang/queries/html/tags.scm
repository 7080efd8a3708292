; HTML definitions: elements that carry an `id`, named by it.

(element
  [(start_tag
     (attribute (attribute_name) @_attr
       [(attribute_value) @name
        (quoted_attribute_value (attribute_value) @name)]))
   (self_closing_tag
     (attribute (attribute_name) @_attr
       [(attribute_value) @name
        (quoted_attribute_value (attribute_value) @name)]))]
  (#match? @_attr "^[iI][dD]$")) @definition.element

([(script_element
   (start_tag
     (attribute (attribute_name) @_attr
       [(attribute_value) @name
        (quoted_attribute_value (attribute_value) @name)])))
  (style_element
   (start_tag
     (attribute (attribute_name) @_attr
       [(attribute_value) @name
        (quoted_attribute_value (attribute_value) @name)])))] @definition.element
  (#match? @_attr "^[iI][dD]$"))
