graph [
  directed 0
  node [ id 0 label "a" ]
  node [ id 1 label "b\"c" ]
  node [ id 2 ]
  edge [ source 0 target 1 value 2 ]
  edge [ source 1 target 2 weight 2 ]
]
