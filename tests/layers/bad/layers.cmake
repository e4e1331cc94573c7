# The layer table of the fixture: b may include a, a includes nothing.
set(SCHEDHOST_LAYERS a b)
set(SCHEDHOST_LAYER_a)
set(SCHEDHOST_LAYER_b a)
