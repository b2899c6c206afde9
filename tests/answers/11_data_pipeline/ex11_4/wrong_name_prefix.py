# caught by the visible tests
# wrong: drops only classes whose name starts with "Random" (ColorJitter and GaussianNoise stay)
# Exercise 11.4
def make_eval_pipeline(train_pipeline):
    """Exercise 11.4: a new v2.Compose of the non-random transforms of train_pipeline, in order."""
    return v2.Compose([t for t in train_pipeline.transforms if not type(t).__name__.startswith("Random")])
