# Padgett's Florentine families marriage network (Breiger and Pattison 1986, as networkx.florentine_families_graph gives it; the 15 families with a marriage tie, Pucci left out), in the node order of data/graphs/florentine.edges (--generate florentine)
graph [
  directed 0
  node [
    id 0
    label "Acciaiuoli"
  ]
  node [
    id 1
    label "Medici"
  ]
  node [
    id 2
    label "Castellani"
  ]
  node [
    id 3
    label "Peruzzi"
  ]
  node [
    id 4
    label "Strozzi"
  ]
  node [
    id 5
    label "Barbadori"
  ]
  node [
    id 6
    label "Ridolfi"
  ]
  node [
    id 7
    label "Tornabuoni"
  ]
  node [
    id 8
    label "Albizzi"
  ]
  node [
    id 9
    label "Salviati"
  ]
  node [
    id 10
    label "Pazzi"
  ]
  node [
    id 11
    label "Bischeri"
  ]
  node [
    id 12
    label "Guadagni"
  ]
  node [
    id 13
    label "Ginori"
  ]
  node [
    id 14
    label "Lamberteschi"
  ]
  edge [
    source 0
    target 1
  ]
  edge [
    source 1
    target 5
  ]
  edge [
    source 1
    target 6
  ]
  edge [
    source 1
    target 7
  ]
  edge [
    source 1
    target 8
  ]
  edge [
    source 1
    target 9
  ]
  edge [
    source 2
    target 3
  ]
  edge [
    source 2
    target 4
  ]
  edge [
    source 2
    target 5
  ]
  edge [
    source 3
    target 4
  ]
  edge [
    source 3
    target 11
  ]
  edge [
    source 4
    target 6
  ]
  edge [
    source 4
    target 11
  ]
  edge [
    source 6
    target 7
  ]
  edge [
    source 7
    target 12
  ]
  edge [
    source 8
    target 12
  ]
  edge [
    source 8
    target 13
  ]
  edge [
    source 9
    target 10
  ]
  edge [
    source 11
    target 12
  ]
  edge [
    source 12
    target 14
  ]
]
