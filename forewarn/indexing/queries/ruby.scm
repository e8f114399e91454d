; language: ruby
; grammar: tree_sitter_ruby:language
; extensions: .rb .rake .gemspec
; resolver: ruby

; --- definitions (`class A::B` nests as A.B; `def self.x` nests under its class like any method)
(class name: [(constant) (scope_resolution)] @name) @definition.class
(module name: [(constant) (scope_resolution)] @name) @definition.module
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method

; --- references
(call method: (identifier) @name (#not-match? @name "^(require|require_relative|load|include|extend|attr_reader|attr_writer|attr_accessor|private|protected|public)$")) @reference.call
(superclass [(constant) @name (scope_resolution name: (constant) @name)]) @reference.class
(call
  method: (identifier) @_mixin (#match? @_mixin "^(include|extend|prepend)$")
  arguments: (argument_list [(constant) @name (scope_resolution name: (constant) @name)])) @reference.module
(constant) @name @reference.constant

; --- imports
(call
  method: (identifier) @_require (#match? @_require "^(require|load)$")
  arguments: (argument_list . (string (string_content) @import.source))) @import
(call
  method: (identifier) @_require (#eq? @_require "require_relative")
  arguments: (argument_list . (string (string_content) @import.source.relative))) @import
