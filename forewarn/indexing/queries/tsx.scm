; language: tsx
; grammar: tree_sitter_typescript:language_tsx
; extensions: .tsx
; resolver: javascript
; inherits: typescript

; --- JSX (components only: lower-case tags are HTML elements)
(jsx_opening_element name: (identifier) @name (#match? @name "^[A-Z]")) @reference.class
(jsx_self_closing_element name: (identifier) @name (#match? @name "^[A-Z]")) @reference.class
