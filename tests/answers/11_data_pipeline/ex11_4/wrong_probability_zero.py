# wrong: sets p = 0 on the shared transform objects (switches training augmentation off too, and misses RandomAffine)
# Exercise 11.4
def make_eval_pipeline(train_pipeline):
    """Exercise 11.4: a new v2.Compose of the non-random transforms of train_pipeline, in order."""
    for t in train_pipeline.transforms:
        if hasattr(t, "p"):
            t.p = 0.0
    return v2.Compose([t for t in train_pipeline.transforms if not isinstance(t, (v2.ColorJitter, v2.GaussianNoise, v2.RandomAffine, v2.RandomRotation, v2.RandomCrop))])
