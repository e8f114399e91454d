; language: cpp
; grammar: tree_sitter_cpp:language
; extensions: .cc .cpp .cxx .c++ .hpp .hh .hxx .h++ .ipp
; resolver: include
; inherits: c

; --- definitions beyond C's. A method defined outside its class as `ns::Class::method` nests as
; ns.Class.method, the same path as when it is defined inside `namespace ns { class Class {…} }`.
(function_definition
  declarator: [
    (function_declarator declarator: [(field_identifier) (qualified_identifier) (destructor_name) (operator_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (qualified_identifier)] @name))
    (reference_declarator (function_declarator declarator: [(field_identifier) (qualified_identifier) (operator_name)] @name))
  ]) @definition.function
(template_declaration
  (function_definition
    declarator: [
      (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (qualified_identifier)] @name))
      (reference_declarator (function_declarator declarator: [(identifier) (qualified_identifier)] @name))
    ])) @definition.function
(class_specifier name: [(type_identifier) (qualified_identifier)] @name body: (_)) @definition.class
(template_declaration (class_specifier name: (type_identifier) @name body: (_))) @definition.class
(template_declaration (struct_specifier name: (type_identifier) @name body: (_))) @definition.struct
(namespace_definition name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.namespace

; --- references
(call_expression
  function: [
    (qualified_identifier name: (identifier) @name)
    (qualified_identifier name: (qualified_identifier name: (identifier) @name))
    (template_function name: (identifier) @name)
    (qualified_identifier name: (template_function name: (identifier) @name))
  ]) @reference.call
(base_class_clause [(type_identifier) @name (qualified_identifier name: (type_identifier) @name)]) @reference.class
(new_expression type: (type_identifier) @name) @reference.class
; a method declared in its class and defined elsewhere (`void flush();` in logger.h, defined in logger-inl.h)
(field_declaration
  declarator: [
    (function_declarator declarator: [(field_identifier) (operator_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))
    (reference_declarator (function_declarator declarator: (field_identifier) @name))
  ]) @reference.declaration
