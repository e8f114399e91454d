; language: python
; grammar: tree_sitter_python:language
; extensions: .py .pyi
; resolver: python

; --- definitions (decorated forms first: the widest span wins, so decorators belong to the chunk)
(decorated_definition
  definition: (class_definition name: (identifier) @name)) @definition.class
(decorated_definition
  definition: (function_definition name: (identifier) @name)) @definition.function
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function

; --- references
(decorator [
  (identifier) @name
  (attribute attribute: (identifier) @name)
  (call function: [(identifier) @name (attribute attribute: (identifier) @name)])
]) @reference.decorator
(class_definition superclasses: (argument_list [
  (identifier) @name
  (attribute attribute: (identifier) @name)
]) @reference.class)
(call function: [
  (identifier) @name
  (attribute attribute: (identifier) @name)
]) @reference.call
(type [
  (identifier) @name
  (attribute attribute: (identifier) @name)
  (generic_type (identifier) @name)
]) @reference.type

; --- imports
(import_statement name: [
  (dotted_name) @import.source
  (aliased_import name: (dotted_name) @import.source)
]) @import
(import_from_statement
  module_name: (_) @import.source
  name: [
    (dotted_name) @import.name
    (aliased_import name: (dotted_name) @import.name)
  ]) @import
(import_from_statement
  module_name: (_) @import.source
  (wildcard_import) @import.name) @import
