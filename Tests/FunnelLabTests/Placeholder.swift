// Tests land with the model.
