; language: java
; grammar: tree_sitter_java:language
; extensions: .java
; resolver: java

; --- definitions
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.record
(annotation_type_declaration name: (identifier) @name) @definition.interface
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(compact_constructor_declaration name: (identifier) @name) @definition.constructor

; --- references
(method_invocation name: (identifier) @name) @reference.call
(object_creation_expression type: [
  (type_identifier) @name
  (generic_type (type_identifier) @name)
  (scoped_type_identifier (type_identifier) @name .)
]) @reference.class
(superclass [(type_identifier) @name (generic_type (type_identifier) @name)]) @reference.class
(super_interfaces (type_list [(type_identifier) @name (generic_type (type_identifier) @name)])) @reference.class
[(marker_annotation name: (identifier) @name) (annotation name: (identifier) @name)] @reference.annotation
(type_identifier) @name @reference.type

; --- imports (static and nested-class imports name members after the class; the resolver trims them)
(import_declaration (scoped_identifier) @import.source) @import
(import_declaration (scoped_identifier) @import.source (asterisk) @import.name) @import
