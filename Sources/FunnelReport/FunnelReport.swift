// Placeholder removed once the renderers land.
