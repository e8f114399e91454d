; language: c
; grammar: tree_sitter_c:language
; extensions: .c .h
; resolver: include

; --- definitions (patterns shared with C++, which inherits this file)
(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.union
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition
  type: [(struct_specifier body: (_)) (union_specifier body: (_)) (enum_specifier body: (_))]
  declarator: (type_identifier) @name) @definition.struct
(preproc_function_def name: (identifier) @name) @definition.macro

; --- references
(call_expression
  function: [(identifier) @name (field_expression field: (field_identifier) @name)]) @reference.call
(type_identifier) @name @reference.type
; a function declared here and defined elsewhere (a header's prototype) uses the file that defines it: the
; definition's memories show on the declaration, as on a call
(declaration
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
  ]) @reference.declaration

; --- imports ("local.h" is resolved; <system.h> is recorded as written, angle brackets kept)
(preproc_include path: [(string_literal) (system_lib_string)] @import.source) @import
