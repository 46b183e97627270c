// Placeholder removed once the model lands.
