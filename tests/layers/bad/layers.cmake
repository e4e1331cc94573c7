# The layer table of the fixture: b may include a, a includes nothing, and c (in b's folder,
# host/b/c) may include a only.
set(SCHEDHOST_LAYERS a b c)
set(SCHEDHOST_LAYER_a)
set(SCHEDHOST_LAYER_DIR_a a)
set(SCHEDHOST_LAYER_b a)
set(SCHEDHOST_LAYER_DIR_b b)
set(SCHEDHOST_LAYER_c a)
set(SCHEDHOST_LAYER_DIR_c b/c)
