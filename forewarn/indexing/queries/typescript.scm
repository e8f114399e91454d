; language: typescript
; grammar: tree_sitter_typescript:language_typescript
; extensions: .ts .mts .cts
; resolver: javascript
; inherits: javascript

; --- definitions beyond JavaScript's
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: [(identifier) (nested_identifier)] @name) @definition.namespace
(module name: [(identifier) (nested_identifier)] @name) @definition.namespace
(function_signature name: (identifier) @name) @definition.function
(method_signature name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method
(public_field_definition
  name: (_) @name
  value: [(arrow_function) (function_expression)]) @definition.method

; --- references
(type_annotation [(type_identifier) @name (generic_type name: (type_identifier) @name)]) @reference.type
(extends_clause value: [(identifier) @name (member_expression property: (property_identifier) @name)])
  @reference.class
(implements_clause [(type_identifier) @name (generic_type name: (type_identifier) @name)]) @reference.type
(extends_type_clause type: [(type_identifier) @name (generic_type name: (type_identifier) @name)]) @reference.type
(type_arguments [(type_identifier) @name (generic_type name: (type_identifier) @name)]) @reference.type
(array_type (type_identifier) @name) @reference.type

; --- imports beyond JavaScript's
(import_statement (import_require_clause (identifier) @import.name source: (string) @import.source)) @import
