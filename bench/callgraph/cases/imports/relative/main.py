from pkg.core import process

process(" X ")
