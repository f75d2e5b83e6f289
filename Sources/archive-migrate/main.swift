import ModelVersioning

print("archive-migrate: not yet implemented")
