; language: rust
; grammar: tree_sitter_rust:language
; extensions: .rs
; resolver: rust
; trivia: attribute_item

; --- definitions (members of `impl Type` and `impl Trait for Type` nest under Type)
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.union
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(mod_item name: (identifier) @name body: (declaration_list)) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
(impl_item
  !trait
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
  ] @label) @definition.impl
(impl_item
  trait: (_) @label
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
  ]) @definition.impl

; --- references
(call_expression
  function: [
    (identifier) @name
    (field_expression field: (field_identifier) @name)
    (scoped_identifier name: (identifier) @name)
    (generic_function function: [(identifier) @name (scoped_identifier name: (identifier) @name)
                                 (field_expression field: (field_identifier) @name)])
  ]) @reference.call
(macro_invocation macro: [(identifier) @name (scoped_identifier name: (identifier) @name)]) @reference.macro
(type_identifier) @name @reference.type
; the type a path goes through (`MappingTarget::from_str(s)`, `Case::Sensitive`): trait items such as
; `from_str` count for nothing by name alone, so the use is the type's; lowercase segments are modules
(scoped_identifier
  path: [(identifier) @name (scoped_identifier name: (identifier) @name)]
  (#match? @name "^[A-Z]")) @reference.type

; --- imports (`mod x;` is recorded as the path `x`, which resolves like `self::x`)
(use_declaration argument: [(scoped_identifier) (identifier) (crate) (super) (self)] @import.source) @import
(use_declaration argument: (use_as_clause path: (_) @import.source)) @import
(use_declaration argument: (use_wildcard (_) @import.source)) @import
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.source
    list: (use_list [
      (identifier) @import.name
      (scoped_identifier) @import.name
      (use_as_clause path: (_) @import.name)
      (self) @import.name
    ]))) @import
(mod_item name: (identifier) @import.source !body) @import
