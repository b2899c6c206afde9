# caught by the visible tests
# wrong: a new Compose with every step, augmentation included
# Exercise 11.4
def make_eval_pipeline(train_pipeline):
    """Exercise 11.4: a new v2.Compose of the non-random transforms of train_pipeline, in order."""
    return v2.Compose(list(train_pipeline.transforms))
