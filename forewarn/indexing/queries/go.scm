; language: go
; grammar: tree_sitter_go:language
; extensions: .go
; resolver: go

; --- definitions (methods nest under their receiver type)
(function_declaration name: (identifier) @name) @definition.function
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @scope
        (pointer_type (type_identifier) @scope)
        (generic_type type: (type_identifier) @scope)
        (pointer_type (generic_type type: (type_identifier) @scope))
      ]))
  name: (field_identifier) @name) @definition.method
(type_declaration (type_spec name: (type_identifier) @name type: (struct_type))) @definition.struct
(type_declaration (type_spec name: (type_identifier) @name type: (interface_type))) @definition.interface
(type_declaration (type_spec name: (type_identifier) @name)) @definition.type
(method_elem name: (field_identifier) @name) @definition.method

; --- references
(call_expression
  function: [
    (identifier) @name
    (parenthesized_expression (identifier) @name)
    (selector_expression field: (field_identifier) @name)
    (parenthesized_expression (selector_expression field: (field_identifier) @name))
  ]) @reference.call
; a package's exported function or value used without a call (FuzzyAlgo: algo.FuzzyMatchV2, a callback)
(selector_expression
  operand: (identifier)
  field: (field_identifier) @name
  (#match? @name "^[A-Z]")) @reference.value
((type_identifier) @name @reference.type
  (#not-match? @name "^(bool|byte|complex64|complex128|error|float32|float64|int|int8|int16|int32|int64|rune|string|uint|uint8|uint16|uint32|uint64|uintptr|any)$"))

; --- imports
(import_spec path: (interpreted_string_literal) @import.source) @import
