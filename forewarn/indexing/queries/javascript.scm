; language: javascript
; grammar: tree_sitter_javascript:language
; extensions: .js .jsx .mjs .cjs
; resolver: javascript

; --- definitions (patterns shared with TypeScript, which inherits this file)
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(function_expression name: (identifier) @name) @definition.function
(class_declaration name: (_) @name) @definition.class
(class name: (_) @name) @definition.class
(method_definition name: (_) @name) @definition.method
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (class))) @definition.class
(expression_statement
  (assignment_expression
    left: [(identifier) @name (member_expression property: (property_identifier) @name)]
    right: [(arrow_function) (function_expression)])) @definition.function
(pair
  key: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.function

; --- references
(call_expression
  function: [(identifier) @name (member_expression property: (property_identifier) @name)]
  (#not-eq? @name "require")) @reference.call
(new_expression constructor: [(identifier) @name (member_expression property: (property_identifier) @name)])
  @reference.class
(decorator [(identifier) @name (call_expression function: (identifier) @name)]) @reference.decorator

; --- imports
(import_statement
  (import_clause [
    (identifier) @import.name
    (named_imports (import_specifier name: (_) @import.name))
    (namespace_import (identifier) @import.name)
  ])?
  source: (string) @import.source) @import
(export_statement source: (string) @import.source) @import
(call_expression
  function: (identifier) @_require (#eq? @_require "require")
  arguments: (arguments . (string) @import.source)) @import
(call_expression
  function: (import)
  arguments: (arguments . (string) @import.source)) @import

; local: JavaScript-only patterns below (TypeScript's grammars lack these node types), not inherited
(jsx_opening_element name: (identifier) @name (#match? @name "^[A-Z]")) @reference.class
(jsx_self_closing_element name: (identifier) @name (#match? @name "^[A-Z]")) @reference.class
(field_definition
  property: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.method
(class_heritage [(identifier) @name (member_expression property: (property_identifier) @name)]) @reference.class
